SELECT mleval_functions();
